/* control.c — the environment control channel (REFERENCE 1, HUD's v6
 * wire): a libuv TCP server speaking newline-delimited JSON-RPC 2.0 —
 * hello, tasks.list, tasks.start, tasks.grade, tasks.cancel, bye, and
 * tunnel.open as a first frame.
 *
 * Threads. The loop thread owns every socket, session and task reference.
 * A task's start and grade run on a small pool of worker threads; each
 * finished job goes on a locked list and a uv_async wakes the loop, which
 * writes the answer. Every job has a uv_timer at its deadline: when it
 * fires first, the client is answered at once (an isError grade, or a
 * start error), the task context's `cancelled` flag is raised, and, since
 * the worker is stuck in code we cannot interrupt, one more worker is
 * started so the pool keeps its size (at most WORKERS_STUCK_MAX extra; the
 * stuck thread leaves once its job returns). A job is freed when both its
 * worker and its timer are done with it.
 *
 * Waking workers. Most starts and grades take microseconds, and handing
 * each to a sleeping thread costs more than running it: eight workers
 * woken one per job on two CPUs spent their time in futexes and the pool's
 * lock (bench/RESULTS.md). So a submitted job wakes a sleeper only while
 * fewer than `eager` workers (the CPUs but one, at least one) are awake;
 * otherwise an awake worker takes it when its job returns. A job that
 * blocks must not hold the queue up, though: while jobs wait, a timer
 * checks every POOL_NUDGE_MS whether any was taken since it last looked,
 * and if none was, wakes one more sleeper — so slow graders still spread
 * over the whole pool, a few milliseconds apart.
 *
 * Sessions. Every connection gets a session `sess-<8 hex>` (random) at
 * accept. A session outlives its socket only when it has something to
 * keep — a task, or a start/grade still running: it is then *parked*, in a
 * list that hello {session_id} and a bare tasks.grade take sessions from.
 * A session with nothing is freed with its socket. Sessions sit in a hash
 * table keyed by their 32-bit id (fixed bucket count: 10,000 sessions give
 * chains of about one).
 *
 * Expiry. A parked session that nobody resumes within park_timeout_ms is
 * ended as bye would end it, and forgotten. Sessions join the parked list
 * at its tail, so the list is in parking order and the oldest is at its
 * head: one uv_timer, set for the head's deadline, ends what is due and
 * re-arms for the next head. That costs O(1) per parked session and no
 * memory beyond one timestamp in each (the session struct stays within the
 * same malloc size class); resuming a session takes it off the list, and
 * so out of expiry.
 *
 * Reading. One connection's lines are handled in order: a line that starts
 * a job pauses the connection (uv_read_stop) until the job is answered, so
 * a client cannot pile up work and its buffer stays bounded. Reads land in
 * one 64 KiB buffer shared by the loop; only the bytes of an unfinished
 * line are copied into the connection, so 10,000 idle connections hold no
 * read buffers. rig's framer reports a line over max_line once, as soon as
 * it is known to be too long, and drops the rest of it as it arrives.
 *
 * Writing. Replies go out with uv_try_write, and what the socket does not
 * take is queued by libuv. A client that sends requests but never reads
 * would make that queue grow without end (a tasks.list reply may be large
 * and its request 50 bytes), so once a connection has more than
 * WRITE_HIGH bytes queued it stops being read — and its lines already read
 * wait unhandled — until the queue drains below WRITE_LOW. A connection is
 * read only while it waits for neither a job nor the writes (conn_resume).
 *
 * What the anchor does differently, on purpose: a non-JSON line gets -32700
 * and the connection lives on; a too-long line gets -32600 and the
 * connection lives on; a line without a final newline at EOF is dropped
 * (a client that hangs up mid-line did not mean it). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <uv.h>

#include "env/env_internal.h"

#define READ_CHUNK (64 * 1024)
#define SESSION_BUCKETS 16384u    /* power of two */
#define WORKERS_STUCK_MAX 256     /* replacement threads for hung graders */
#define STOP_WAIT_MS 5000         /* how long stop waits for running jobs */
#define POOL_NUDGE_MS 2           /* a queue that made no progress this long wakes a worker */
#define TUNNEL_HIGH (1u << 20)    /* bytes queued one way before reading pauses */
#define PARKED_LISTED 10          /* ids named in the "several parked" error */
#define WRITE_HIGH (4u << 20)     /* bytes queued to a client before its reading pauses */
#define WRITE_LOW (1u << 20)      /* ... and below which it resumes */

typedef struct rig_env_server server;
typedef struct conn conn;
typedef struct session session;
typedef struct job job;
typedef struct tunnel tunnel;

struct session {
    session *hnext;          /* hash chain */
    session *pprev, *pnext;  /* parked list, when parked */
    uint32_t key;
    char id[16];
    conn *conn;              /* NULL when parked */
    rig_task_ctx *task;      /* the task held, one reference */
    job *job;                /* a start or grade running for it */
    uint64_t parked_at;      /* uv_now when parked: its expiry is this + park_ms */
    bool parked;
};

struct conn {
    uv_tcp_t tcp;            /* first: the handle's address is the conn's */
    server *srv;
    conn *prev, *next;
    session *sess;
    job *job;                /* the job this connection waits for */
    tunnel *tun;
    char *buf;               /* an unfinished line, or lines waiting on a job */
    size_t len, cap;
    rig_json_framer fr;
    size_t writes;           /* uv_write requests in flight */
    bool seen_frame, closing, close_after_write, reading;
    bool wblocked;           /* over WRITE_HIGH: not read until drained to WRITE_LOW */
};

enum { JOB_START, JOB_GRADE };

struct job {
    job *qnext;              /* pool queue, then done list */
    job *lprev, *lnext;      /* the server's live jobs */
    int kind;
    server *srv;
    session *sess;           /* NULL once the session let go of it */
    conn *conn;              /* reply target; NULL once gone */
    char *reqid;             /* raw JSON id, NULL for a notification */
    size_t reqid_len;
    rig_task_ctx *ctx;       /* one reference */
    rig_answer answer;
    char *prompt;            /* start's result */
    rig_grade grade;
    int rc;
    rig_error err;
    uv_timer_t timer;
    bool running, timed_out, worker_done, answered, timer_closed;
};

struct tunnel {
    uv_tcp_t up;
    uv_connect_t creq;
    conn *c;
    char *pending;           /* bytes after the tunnel.open line */
    size_t plen;
    char name[128];
    bool connected;
};

struct rig_env_server {
    rig_env *env;
    int64_t timeout_ms;
    uint64_t park_ms;        /* a parked session's lifetime */
    size_t max_line;
    unsigned max_conns, max_tasks, base_workers;
    uv_loop_t loop;
    uv_tcp_t listener;
    uv_async_t wake, stop_async;
    uv_signal_t sigs[2];
    bool use_signals, stopped;
    int port;
    conn *conns;
    unsigned nconns;
    session **buckets;
    session *parked, *parked_tail; /* oldest first */
    unsigned nparked, ntasks;
    uv_timer_t park_timer;   /* due at the oldest parked session's expiry */
    job *jobs;
    rig_json_doc *doc;
    rig_json_writer w;
    char *rbuf;
    bool rbuf_busy;
    /* the pool */
    pthread_mutex_t lock;
    pthread_cond_t work_cv, exit_cv;
    job *qhead, *qtail, *done;
    unsigned alive, stuck;
    unsigned idle;      /* workers waiting for a job */
    unsigned woken;     /* of them, signalled and not yet up */
    unsigned running;   /* workers inside a start or grade */
    unsigned eager;     /* workers kept awake without a nudge */
    uint64_t taken;     /* jobs taken off the queue, ever */
    uint64_t nudge_seen; /* `taken` when the nudge timer last looked */
    uv_timer_t nudge;   /* loop thread: wakes a worker for a stalled queue */
    bool pool_stopping;
    pthread_t thread; /* rig_env_server_start's */
};

static void conn_close(conn *c);
static void conn_resume(conn *c);
static void on_tun_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
static void on_up_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf);
static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf);
static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
static void on_park_timer(uv_timer_t *t);

/* ---------------------------------------------------------------- writing */

typedef struct wreq {
    uv_write_t req;
    conn *c;       /* NULL for a tunnel's upstream write */
    tunnel *t;
    char data[];
} wreq;

static void on_write(uv_write_t *req, int status) {
    wreq *r = (wreq *)req;
    conn *c = r->c;
    tunnel *t = r->t;
    free(r);
    if (c) {
        c->writes--;
        if (status < 0 || (c->close_after_write && c->writes == 0)) conn_close(c);
        else if (c->tun && c->tun->connected && !c->closing &&
                 uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) < TUNNEL_HIGH / 4)
            uv_read_start((uv_stream_t *)&c->tun->up, on_tun_alloc, on_up_read); /* drained */
        else if (c->wblocked && !c->closing &&
                 uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) < WRITE_LOW) {
            c->wblocked = false; /* drained: the lines that waited go on */
            conn_resume(c);
        }
    } else if (t && status < 0 && t->c) {
        conn_close(t->c);
    }
}

/* Write a..b to stream s without a copy when the socket takes it all;
 * the rest is copied into one request. Returns 0 or a uv error. */
static int stream_send(uv_stream_t *s, conn *c, tunnel *t, const char *a, size_t alen,
                       const char *b, size_t blen) {
    uv_buf_t bufs[2] = {uv_buf_init((char *)a, (unsigned)alen), uv_buf_init((char *)b, (unsigned)blen)};
    size_t done = 0;
    if (uv_stream_get_write_queue_size(s) == 0) {
        int n = uv_try_write(s, bufs, blen ? 2 : 1);
        if (n < 0 && n != UV_EAGAIN) return n;
        if (n > 0) done = (size_t)n;
    }
    size_t total = alen + blen;
    if (done == total) return 0;
    size_t rest = total - done;
    wreq *r = malloc(sizeof *r + rest);
    if (!r) return UV_ENOMEM;
    r->c = c;
    r->t = t;
    size_t off = 0;
    if (done < alen) {
        memcpy(r->data, a + done, alen - done);
        off = alen - done;
        memcpy(r->data + off, b, blen);
    } else {
        memcpy(r->data, b + (done - alen), rest);
    }
    uv_buf_t buf = uv_buf_init(r->data, (unsigned)rest);
    int rc = uv_write(&r->req, s, &buf, 1, on_write);
    if (rc < 0) {
        free(r);
        return rc;
    }
    if (c) c->writes++;
    return 0;
}

/* Send the writer's frame to c and reset the writer. */
static void send_frame(conn *c) {
    server *srv = c->srv;
    size_t len;
    const char *out = rig_json_writer_finish(&srv->w, &len);
    if (out && !c->closing && stream_send((uv_stream_t *)&c->tcp, c, NULL, out, len, "\n", 1) < 0)
        conn_close(c);
    rig_json_writer_reset(&srv->w);
    /* A client that does not read: stop taking its requests (on_write
     * resumes). A tunnel has its own pacing. */
    if (!c->closing && !c->tun && !c->wblocked &&
        uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) > WRITE_HIGH) {
        c->wblocked = true;
        if (c->reading) {
            uv_read_stop((uv_stream_t *)&c->tcp);
            c->reading = false;
        }
    }
}

static void begin_reply(server *srv, const char *id, size_t idlen) {
    rig_json_writer *w = &srv->w;
    rig_json_writer_reset(w);
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "jsonrpc");
    rig_json_write_string(w, "2.0");
    rig_json_write_key(w, "id");
    if (id) rig_json_write_raw(w, id, idlen);
    else rig_json_write_null(w);
}

static void send_error(conn *c, const char *id, size_t idlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void send_error(conn *c, const char *id, size_t idlen, int code, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rig_json_writer *w = &c->srv->w;
    begin_reply(c->srv, id, idlen);
    rig_json_write_key(w, "error");
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "code");
    rig_json_write_int(w, code);
    rig_json_write_key(w, "message");
    rig_json_write_string(w, msg);
    rig_json_write_object_end(w);
    rig_json_write_object_end(w);
    send_frame(c);
}

/* ---------------------------------------------------------------- sessions */

static uint32_t random_u32(void) {
    uint32_t v;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) /* no entropy source: still unique */
        v = (uint32_t)uv_hrtime() * 2654435761u;
    return v;
}

static session *session_find(server *srv, uint32_t key) {
    for (session *s = srv->buckets[key & (SESSION_BUCKETS - 1)]; s; s = s->hnext)
        if (s->key == key) return s;
    return NULL;
}

/* "sess-" and 8 lowercase hex digits, else false. */
static bool session_key(const char *p, size_t len, uint32_t *key) {
    if (len != 13 || memcmp(p, "sess-", 5) != 0) return false;
    uint32_t v = 0;
    for (size_t i = 5; i < 13; i++) {
        char ch = p[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        if (d < 0) return false;
        v = v << 4 | (uint32_t)d;
    }
    *key = v;
    return true;
}

static session *session_new(server *srv) {
    session *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    do s->key = random_u32();
    while (session_find(srv, s->key));
    snprintf(s->id, sizeof s->id, "sess-%08x", s->key);
    session **b = &srv->buckets[s->key & (SESSION_BUCKETS - 1)];
    s->hnext = *b;
    *b = s;
    return s;
}

static void unpark(server *srv, session *s) {
    if (!s->parked) return;
    if (s->pprev) s->pprev->pnext = s->pnext;
    else srv->parked = s->pnext;
    if (s->pnext) s->pnext->pprev = s->pprev;
    else srv->parked_tail = s->pprev;
    s->pprev = s->pnext = NULL;
    s->parked = false;
    srv->nparked--;
    if (!srv->parked) uv_timer_stop(&srv->park_timer);
    /* Otherwise the timer may fire early for a head that left: the sweep
     * then finds nothing due and re-arms, cheaper than re-arming here. */
}

static void drop_task(server *srv, session *s) {
    if (!s->task) return;
    atomic_store(&s->task->cancelled, true);
    rig__task_ctx_unref(s->task);
    s->task = NULL;
    srv->ntasks--;
}

static void session_free(server *srv, session *s) {
    unpark(srv, s);
    drop_task(srv, s);
    if (s->job) s->job->sess = NULL; /* its answer goes nowhere now */
    session **p = &srv->buckets[s->key & (SESSION_BUCKETS - 1)];
    while (*p != s) p = &(*p)->hnext;
    *p = s->hnext;
    free(s);
}

/* End every parked session that is due, oldest first, and re-arm for the
 * next one: the list is in parking order, so this stops at the first that
 * is not due. */
static void on_park_timer(uv_timer_t *t) {
    server *srv = t->data;
    uint64_t now = uv_now(&srv->loop);
    while (srv->parked && now - srv->parked->parked_at >= srv->park_ms)
        session_free(srv, srv->parked); /* ends its task, as bye does */
    if (srv->parked)
        uv_timer_start(t, on_park_timer, srv->parked->parked_at + srv->park_ms - now, 0);
}

/* The session lost its socket: keep it if it holds something. */
static void session_orphan(server *srv, session *s) {
    s->conn = NULL;
    if (!s->task && !s->job) {
        session_free(srv, s);
        return;
    }
    s->parked = true;
    s->parked_at = uv_now(&srv->loop);
    s->pnext = NULL;
    s->pprev = srv->parked_tail;
    if (srv->parked_tail) srv->parked_tail->pnext = s;
    else srv->parked = s;
    srv->parked_tail = s;
    srv->nparked++;
    if (!uv_is_active((uv_handle_t *)&srv->park_timer) && !srv->stopped)
        uv_timer_start(&srv->park_timer, on_park_timer, srv->park_ms, 0);
}

/* Connection c takes over parked session s; its own session goes. */
static void conn_adopt(conn *c, session *s) {
    server *srv = c->srv;
    session *old = c->sess;
    unpark(srv, s);
    s->conn = c;
    c->sess = s;
    if (old) session_orphan(srv, old);
}

/* ---------------------------------------------------------------- the pool */

static void *worker_main(void *arg) {
    server *srv = arg;
    pthread_mutex_lock(&srv->lock);
    for (;;) {
        while (!srv->qhead && !srv->pool_stopping) {
            srv->idle++;
            pthread_cond_wait(&srv->work_cv, &srv->lock);
            srv->idle--;
            if (srv->woken) srv->woken--; /* a spurious wake-up miscounts: the nudge mends it */
        }
        if (srv->pool_stopping) break; /* queued jobs are freed by stop, unrun */
        job *j = srv->qhead;
        srv->qhead = j->qnext;
        if (!srv->qhead) srv->qtail = NULL;
        j->running = true;
        srv->running++;
        srv->taken++;
        pthread_mutex_unlock(&srv->lock);

        rig_error_clear(&j->err);
        if (j->kind == JOB_START) {
            j->prompt = j->ctx->task->start(j->ctx, rig_task_ctx_args(j->ctx), &j->err);
            j->rc = j->prompt ? 0 : RIG_ETOOL;
        } else {
            j->rc = j->ctx->task->grade(j->ctx, &j->answer, &j->grade, &j->err);
        }

        pthread_mutex_lock(&srv->lock);
        srv->running--;
        if (j->timed_out) srv->stuck--;
        j->qnext = srv->done;
        srv->done = j;
        if (!srv->pool_stopping) uv_async_send(&srv->wake);
        if (srv->alive > srv->base_workers + srv->stuck) break; /* a replacement took our place */
    }
    srv->alive--;
    pthread_cond_broadcast(&srv->exit_cv);
    pthread_mutex_unlock(&srv->lock);
    return NULL;
}

/* Called with the lock held. */
static int spawn_worker(server *srv) {
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, worker_main, srv);
    pthread_attr_destroy(&a);
    if (rc == 0) srv->alive++;
    return rc;
}

static void job_free(job *j) {
    rig__task_ctx_unref(j->ctx);
    rig_answer_free(&j->answer);
    rig_grade_clear(&j->grade);
    free(j->prompt);
    free(j->reqid);
    free(j);
}

static void job_unlink(job *j) {
    server *srv = j->srv;
    if (j->lprev) j->lprev->lnext = j->lnext;
    else if (srv->jobs == j) srv->jobs = j->lnext;
    if (j->lnext) j->lnext->lprev = j->lprev;
    j->lprev = j->lnext = NULL;
}

static void on_timer_closed(uv_handle_t *h) {
    job *j = h->data;
    j->timer_closed = true;
    if (j->worker_done) {
        job_unlink(j);
        job_free(j);
    }
}

/* The job's answer was given (or can no longer be): release the session and
 * the connection, and retire the timer. */
static void job_retire(job *j) {
    j->answered = true;
    if (j->sess) {
        session *s = j->sess;
        s->job = NULL;
        j->sess = NULL;
        if (!s->conn && !s->task) session_free(j->srv, s);
    }
    conn *c = j->conn;
    j->conn = NULL;
    if (c) {
        c->job = NULL;
        conn_resume(c);
    }
    if (!uv_is_closing((uv_handle_t *)&j->timer)) {
        uv_timer_stop(&j->timer);
        uv_close((uv_handle_t *)&j->timer, on_timer_closed);
    }
}

static void answer_start(job *j) {
    server *srv = j->srv;
    session *s = j->sess;
    conn *c = j->conn;
    if (j->rc != 0) {
        srv->ntasks--;
        if (c && j->reqid)
            send_error(c, j->reqid, j->reqid_len, -32000, "task '%s' failed to start: %s",
                       j->ctx->task->id, j->err.message[0] ? j->err.message : "no reason given");
        job_retire(j);
        return;
    }
    /* The prompt: a string or any value is wrapped, an object holding
     * "prompt" passes through whole. Re-written so it is one line. */
    rig_json_doc *d = rig_json_parse(j->prompt, strlen(j->prompt), NULL, NULL);
    if (!d) {
        srv->ntasks--;
        if (c && j->reqid)
            send_error(c, j->reqid, j->reqid_len, -32000,
                       "task '%s' failed to start: its start function returned text that is not JSON",
                       j->ctx->task->id);
        job_retire(j);
        return;
    }
    if (s) {
        s->task = j->ctx;
        j->ctx->refs++;
    } else {
        srv->ntasks--; /* nobody is left to hold it */
    }
    if (c && j->reqid) {
        rig_json_writer *w = &srv->w;
        begin_reply(srv, j->reqid, j->reqid_len);
        rig_json_write_key(w, "result");
        rig_json_val root = rig_json_doc_root(d);
        if (rig_json_is_object(root) && rig_json_typeof(rig_json_get(root, "prompt")) != RIG_JSON_MISSING) {
            rig_json_write_value(w, root);
        } else {
            rig_json_write_object_begin(w);
            rig_json_write_key(w, "prompt");
            rig_json_write_value(w, root);
            rig_json_write_object_end(w);
        }
        rig_json_write_object_end(w);
        send_frame(c);
    }
    rig_json_doc_free(d);
    job_retire(j);
}

static void write_grade_reply(job *j, const rig_grade *g) {
    server *srv = j->srv;
    rig_json_writer *w = &srv->w;
    begin_reply(srv, j->reqid, j->reqid_len);
    rig_json_write_key(w, "result");
    rig_grade_write(g, w);
    rig_json_write_object_end(w);
    if (rig_json_writer_error(w)) { /* a grader's info_json that was not JSON */
        rig_json_writer_reset(w);
        send_error(j->conn, j->reqid, j->reqid_len, -32000,
                   "grader failed: its grade held info or subscores that are not valid JSON");
        return;
    }
    send_frame(j->conn);
}

static void answer_grade(job *j) {
    conn *c = j->conn;
    if (c && j->reqid) {
        if (j->rc != 0)
            send_error(c, j->reqid, j->reqid_len, -32000, "grader failed: %s",
                       j->err.message[0] ? j->err.message : "no reason given");
        else
            write_grade_reply(j, &j->grade);
    }
    job_retire(j);
}

static void on_wake(uv_async_t *a) {
    server *srv = a->data;
    pthread_mutex_lock(&srv->lock);
    job *list = srv->done;
    srv->done = NULL;
    pthread_mutex_unlock(&srv->lock);
    while (list) {
        job *j = list;
        list = j->qnext;
        j->worker_done = true;
        if (!j->answered) {
            if (j->kind == JOB_START) answer_start(j);
            else answer_grade(j);
        } else if (j->timer_closed) {
            job_unlink(j);
            job_free(j);
        }
    }
}

static void on_job_timeout(uv_timer_t *t) {
    job *j = t->data;
    server *srv = j->srv;
    atomic_store(&j->ctx->cancelled, true);
    pthread_mutex_lock(&srv->lock);
    bool running = j->running && !j->worker_done;
    j->timed_out = true;
    if (!running) { /* still queued: take it out, it never runs */
        job **p = &srv->qhead;
        while (*p && *p != j) p = &(*p)->qnext;
        if (*p) {
            *p = j->qnext;
            if (srv->qtail == j) {
                srv->qtail = NULL;
                for (job *q = srv->qhead; q; q = q->qnext) srv->qtail = q;
            }
            j->worker_done = true;
        }
    } else {
        srv->stuck++;
        if (srv->stuck <= WORKERS_STUCK_MAX) spawn_worker(srv);
    }
    pthread_mutex_unlock(&srv->lock);
    conn *c = j->conn;
    char msg[128];
    snprintf(msg, sizeof msg, "%s timed out after %lld ms", j->kind == JOB_START ? "start" : "grader",
             (long long)srv->timeout_ms);
    if (j->kind == JOB_START) {
        srv->ntasks--;
        if (c && j->reqid)
            send_error(c, j->reqid, j->reqid_len, -32000, "task '%s' failed to start: %s",
                       j->ctx->task->id, msg);
    } else if (c && j->reqid) {
        rig_grade g = RIG_GRADE_INIT;
        g.is_error = true;
        g.content = msg;
        write_grade_reply(j, &g);
    }
    job_retire(j);
}

/* Jobs wait and none was taken since the last look: every awake worker is
 * in a slow job, so wake another. Stops itself once the queue is empty. */
static void on_nudge(uv_timer_t *t) {
    server *srv = t->data;
    pthread_mutex_lock(&srv->lock);
    bool waiting = srv->qhead != NULL;
    if (waiting && srv->taken == srv->nudge_seen && srv->idle > 0) { /* woken may be off */
        pthread_cond_signal(&srv->work_cv);
        srv->woken++;
    }
    srv->nudge_seen = srv->taken;
    pthread_mutex_unlock(&srv->lock);
    if (!waiting) uv_timer_stop(t);
}

static int job_submit(server *srv, conn *c, int kind, rig_task_ctx *ctx, rig_answer *answer,
                      rig_json_val id, job **out) {
    job *j = calloc(1, sizeof *j);
    if (!j) return RIG_ENOMEM;
    j->kind = kind;
    j->srv = srv;
    j->ctx = ctx;
    size_t idlen = 0;
    const char *idraw = rig_json_typeof(id) != RIG_JSON_MISSING ? rig_json_raw(id, &idlen) : NULL;
    if (idraw) {
        j->reqid = malloc(idlen + 1);
        if (!j->reqid) {
            free(j);
            return RIG_ENOMEM;
        }
        memcpy(j->reqid, idraw, idlen);
        j->reqid[idlen] = 0;
        j->reqid_len = idlen;
    }
    if (answer) j->answer = *answer; /* before a worker can see the job */
    j->grade = (rig_grade)RIG_GRADE_INIT;
    uv_timer_init(&srv->loop, &j->timer);
    j->timer.data = j;
    uv_timer_start(&j->timer, on_job_timeout, (uint64_t)srv->timeout_ms, 0);
    j->sess = c->sess;
    c->sess->job = j;
    j->conn = c;
    c->job = j;
    j->lnext = srv->jobs;
    if (srv->jobs) srv->jobs->lprev = j;
    srv->jobs = j;
    pthread_mutex_lock(&srv->lock);
    if (srv->qtail) srv->qtail->qnext = j;
    else srv->qhead = j;
    srv->qtail = j;
    if (srv->idle > srv->woken && srv->running + srv->woken < srv->eager) {
        pthread_cond_signal(&srv->work_cv);
        srv->woken++;
    }
    pthread_mutex_unlock(&srv->lock);
    if (!uv_is_active((uv_handle_t *)&srv->nudge)) {
        srv->nudge_seen = UINT64_MAX; /* the first look only takes note */
        uv_timer_start(&srv->nudge, on_nudge, POOL_NUDGE_MS, POOL_NUDGE_MS);
    }
    *out = j;
    return 0;
}

/* ---------------------------------------------------------------- methods */

typedef struct request {
    conn *c;
    rig_json_val id, params;
    const char *idraw;
    size_t idlen;
    bool has_id;
} request;

#define REPLY_ERROR(r, code, ...)                                                                  \
    do {                                                                                           \
        if ((r)->has_id) send_error((r)->c, (r)->idraw, (r)->idlen, code, __VA_ARGS__);            \
    } while (0)

static bool begin_result(request *r) {
    if (!r->has_id) return false;
    begin_reply(r->c->srv, r->idraw, r->idlen);
    rig_json_write_key(&r->c->srv->w, "result");
    return true;
}

static void end_result(request *r) {
    rig_json_write_object_end(&r->c->srv->w);
    send_frame(r->c);
}

static void m_hello(request *r) {
    conn *c = r->c;
    server *srv = c->srv;
    rig_json_val sid = rig_json_get(r->params, "session_id");
    rig_json_type t = rig_json_typeof(sid);
    if (t != RIG_JSON_MISSING && t != RIG_JSON_NULL) {
        const char *p;
        size_t len;
        if (!rig_json_str_view(sid, &p, &len)) {
            REPLY_ERROR(r, -32602, "'session_id' must be a string");
            return;
        }
        if (!(len == strlen(c->sess->id) && memcmp(p, c->sess->id, len) == 0)) {
            uint32_t key;
            session *s = session_key(p, len, &key) ? session_find(srv, key) : NULL;
            if (!s) {
                REPLY_ERROR(r, -32600, "unknown session");
                return;
            }
            if (s->conn) {
                REPLY_ERROR(r, -32600, "session '%s' has a live connection", s->id);
                return;
            }
            conn_adopt(c, s);
        }
    }
    if (!begin_result(r)) return;
    rig_json_writer *w = &srv->w;
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "session_id");
    rig_json_write_string(w, c->sess->id);
    rig_json_write_key(w, "env");
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "name");
    rig_json_write_string(w, srv->env->name);
    rig_json_write_key(w, "version");
    rig_json_write_string(w, srv->env->version);
    rig_json_write_object_end(w);
    rig_json_write_key(w, "bindings");
    rig__env_write_bindings(srv->env, w);
    rig_json_write_object_end(w);
    end_result(r);
}

static void m_list(request *r) {
    if (!begin_result(r)) return;
    rig_env *env = r->c->srv->env;
    rig_json_writer *w = &r->c->srv->w;
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "tasks");
    rig_json_write_array_begin(w);
    for (size_t i = 0; i < env->ntasks; i++) {
        const rig__task *t = &env->tasks[i];
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "id");
        rig_json_write_string(w, t->id);
        rig_json_write_key(w, "description");
        rig_json_write_string(w, t->description);
        rig_json_write_key(w, "args");
        rig_json_write_value(w, rig_schema_root(t->args));
        if (t->input) {
            rig_json_write_key(w, "input");
            rig_json_write_value(w, rig_schema_root(t->input));
        }
        if (t->returns) {
            rig_json_write_key(w, "returns");
            rig_json_write_value(w, rig_schema_root(t->returns));
        }
        rig_json_write_object_end(w);
    }
    rig_json_write_array_end(w);
    rig_json_write_object_end(w);
    end_result(r);
}

static void m_start(request *r) {
    conn *c = r->c;
    server *srv = c->srv;
    session *s = c->sess;
    const char *id;
    size_t idlen;
    if (!rig_json_str_view(rig_json_get(r->params, "id"), &id, &idlen)) {
        REPLY_ERROR(r, -32602, "'id' must be a string");
        return;
    }
    rig_json_val args = rig_json_get(r->params, "args");
    rig_json_type at = rig_json_typeof(args);
    if (at != RIG_JSON_MISSING && at != RIG_JSON_OBJECT) {
        REPLY_ERROR(r, -32602, "'args' must be an object");
        return;
    }
    const rig__task *t = rig__env_find_task(srv->env, id, idlen);
    if (!t) {
        REPLY_ERROR(r, -32602, "unknown task: '%.*s'", (int)(idlen > 200 ? 200 : idlen), id);
        return;
    }
    if (s->job) {
        REPLY_ERROR(r, -32600, "session '%s' is still busy with an earlier start or grade", s->id);
        return;
    }
    /* Validate with defaults; the task sees the normalized args. */
    rig_json_writer norm;
    rig_json_writer_init(&norm, 0);
    bool changed = false;
    rig_error e;
    rig_error_clear(&e);
    const char *text = "{}";
    size_t tlen = 2;
    if (at == RIG_JSON_OBJECT) text = rig_json_raw(args, &tlen);
    rig_json_doc *tmp = NULL;
    if (at == RIG_JSON_MISSING) {
        tmp = rig_json_parse(text, tlen, NULL, NULL);
        args = rig_json_doc_root(tmp);
    }
    int rc = rig_schema_validate(t->args, args, RIG_VALIDATE_DEFAULTS, &norm, &changed, &e);
    if (rc == RIG_OK && changed) text = rig_json_writer_finish(&norm, &tlen);
    rig_json_options copy = {.flags = RIG_JSON_COPY_INPUT};
    rig_json_doc *argdoc = rc == RIG_OK && text ? rig_json_parse(text, tlen, &copy, NULL) : NULL;
    rig_json_writer_free(&norm);
    rig_json_doc_free(tmp);
    if (rc != RIG_OK || !argdoc) {
        rig_json_doc_free(argdoc);
        REPLY_ERROR(r, -32000, "bad task args: %s", rc != RIG_OK ? e.message : "out of memory");
        return;
    }
    drop_task(srv, s); /* a session holds one task: the previous one goes first */
    if (srv->ntasks >= srv->max_tasks) {
        rig_json_doc_free(argdoc);
        REPLY_ERROR(r, -32600,
                    "too many sessions hold a task (limit %u); grade, cancel or end some first",
                    srv->max_tasks);
        return;
    }
    rig_task_ctx *ctx = rig__task_ctx_new(t, s->id, argdoc);
    job *j;
    if (!ctx || job_submit(srv, c, JOB_START, ctx, NULL, r->id, &j) != 0) {
        if (ctx) rig__task_ctx_unref(ctx);
        else rig_json_doc_free(argdoc);
        REPLY_ERROR(r, -32000, "out of memory starting task '%s'", t->id);
        return;
    }
    srv->ntasks++;
}

static void m_grade(request *r) {
    conn *c = r->c;
    server *srv = c->srv;
    if (!c->sess->task && !c->sess->job) {
        /* A bare tasks.grade: resume the one parked session. */
        if (srv->nparked == 1) {
            conn_adopt(c, srv->parked);
        } else if (srv->nparked > 1) {
            char ids[PARKED_LISTED * 16 + 64];
            size_t n = 0;
            unsigned k = 0;
            for (session *s = srv->parked; s && k < PARKED_LISTED; s = s->pnext, k++)
                n += (size_t)snprintf(ids + n, sizeof ids - n, "%s%s", k ? ", " : "", s->id);
            if (srv->nparked > PARKED_LISTED)
                snprintf(ids + n, sizeof ids - n, ", and %u more", srv->nparked - PARKED_LISTED);
            REPLY_ERROR(r, -32600,
                        "%u sessions are parked (%s); send hello with the session_id to resume",
                        srv->nparked, ids);
            return;
        }
    }
    session *s = c->sess;
    if (s->job) {
        REPLY_ERROR(r, -32600, "session '%s' is still busy with an earlier start or grade", s->id);
        return;
    }
    if (!s->task) {
        REPLY_ERROR(r, -32600, "no task in progress");
        return;
    }
    rig_json_val ans = rig_json_get(r->params, "answer");
    const char *raw = "null";
    size_t rawlen = 4;
    if (rig_json_typeof(ans) != RIG_JSON_MISSING) raw = rig_json_raw(ans, &rawlen);
    rig_answer a;
    rig_error e;
    rig_error_clear(&e);
    if (rig_answer_parse(raw, rawlen, s->task->task->returns, &a, &e) != RIG_OK) {
        REPLY_ERROR(r, -32602, "'answer' could not be read: %s", e.message);
        return;
    }
    /* Grading consumes the task: the job takes the session's reference. */
    rig_task_ctx *ctx = s->task;
    job *j;
    if (job_submit(srv, c, JOB_GRADE, ctx, &a, r->id, &j) != 0) {
        rig_answer_free(&a);
        REPLY_ERROR(r, -32000, "out of memory grading");
        return;
    }
    s->task = NULL;
    srv->ntasks--;
}

static void m_cancel(request *r) {
    drop_task(r->c->srv, r->c->sess);
    if (!begin_result(r)) return;
    rig_json_writer *w = &r->c->srv->w;
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "cancelled");
    rig_json_write_bool(w, true);
    rig_json_write_object_end(w);
    end_result(r);
}

static void m_bye(request *r) {
    conn *c = r->c;
    if (begin_result(r)) {
        rig_json_writer *w = &c->srv->w;
        rig_json_write_object_begin(w);
        rig_json_write_key(w, "goodbye");
        rig_json_write_bool(w, true);
        rig_json_write_object_end(w);
        end_result(r);
    }
    session *s = c->sess;
    c->sess = NULL;
    if (s) session_free(c->srv, s); /* ends the session and its task */
    if (c->writes == 0) conn_close(c);
    else c->close_after_write = true;
}

/* ---------------------------------------------------------------- tunnels */

static void on_up_closed(uv_handle_t *h) {
    tunnel *t = h->data;
    free(t->pending);
    free(t);
}

static void tunnel_close(tunnel *t) {
    if (!uv_is_closing((uv_handle_t *)&t->up)) uv_close((uv_handle_t *)&t->up, on_up_closed);
    conn *c = t->c;
    t->c = NULL;
    if (c) {
        c->tun = NULL;
        conn_close(c);
    }
}

static void on_up_write(uv_write_t *req, int status) {
    wreq *r = (wreq *)req;
    tunnel *t = r->t;
    free(r);
    if (status < 0) {
        if (status != UV_ECANCELED && t->c) tunnel_close(t);
        return;
    }
    if (t->c && !t->c->closing &&
        uv_stream_get_write_queue_size((uv_stream_t *)&t->up) < TUNNEL_HIGH / 4)
        uv_read_start((uv_stream_t *)&t->c->tcp, on_alloc, on_read);
}

static int up_send(tunnel *t, const char *p, size_t len) {
    uv_stream_t *s = (uv_stream_t *)&t->up;
    wreq *r = malloc(sizeof *r + len);
    if (!r) return UV_ENOMEM;
    r->c = NULL;
    r->t = t;
    memcpy(r->data, p, len);
    uv_buf_t b = uv_buf_init(r->data, (unsigned)len);
    int rc = uv_write(&r->req, s, &b, 1, on_up_write);
    if (rc < 0) free(r);
    return rc;
}

static void on_up_connect(uv_connect_t *req, int status) {
    tunnel *t = req->data;
    conn *c = t->c;
    if (!c) return; /* the client went first; tunnel_close ran */
    if (status < 0) {
        send_error(c, NULL, 0, -32000, "cannot connect to capability '%s': %s", t->name,
                   uv_strerror(status));
        c->tun = NULL;
        t->c = NULL;
        uv_close((uv_handle_t *)&t->up, on_up_closed);
        if (c->writes == 0) conn_close(c);
        else c->close_after_write = true;
        return;
    }
    t->connected = true;
    rig_json_writer *w = &c->srv->w;
    rig_json_writer_reset(w);
    rig_json_write_object_begin(w);
    rig_json_write_key(w, "capability");
    rig_json_write_string(w, t->name);
    rig_json_write_object_end(w);
    send_frame(c);
    if (t->plen && up_send(t, t->pending, t->plen) < 0) {
        tunnel_close(t);
        return;
    }
    free(t->pending);
    t->pending = NULL;
    t->plen = 0;
    uv_read_start((uv_stream_t *)&t->up, on_tun_alloc, on_up_read);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void on_tun_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
    (void)suggested;
    tunnel *t = h->data;
    server *srv = t->c ? t->c->srv : NULL;
    if (!srv || srv->rbuf_busy) {
        *buf = uv_buf_init(NULL, 0);
        return;
    }
    srv->rbuf_busy = true;
    *buf = uv_buf_init(srv->rbuf, READ_CHUNK);
}

static void on_up_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf) {
    tunnel *t = st->data;
    if (t->c && buf->base == t->c->srv->rbuf) t->c->srv->rbuf_busy = false;
    if (n == 0) return;
    if (n < 0 || !t->c) {
        tunnel_close(t);
        return;
    }
    conn *c = t->c;
    if (stream_send((uv_stream_t *)&c->tcp, c, NULL, buf->base, (size_t)n, NULL, 0) < 0) {
        tunnel_close(t);
        return;
    }
    if (uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp) > TUNNEL_HIGH)
        uv_read_stop(st); /* on_write resumes it */
}

/* The first frame asked for a tunnel; rest..len are the bytes after it. */
static void tunnel_open(request *r, const char *rest, size_t restlen) {
    conn *c = r->c;
    server *srv = c->srv;
    const char *name;
    size_t nlen;
    if (!rig_json_str_view(rig_json_get(r->params, "capability"), &name, &nlen)) {
        send_error(c, r->idraw, r->idlen, -32602, "'capability' must be a string");
        return;
    }
    char host[256];
    int port = 0;
    int rc = rig__env_cap_addr(srv->env, name, nlen, host, sizeof host, &port);
    if (rc == RIG_ENOENT) {
        send_error(c, r->idraw, r->idlen, -32602, "unknown capability: '%.*s'",
                   (int)(nlen > 100 ? 100 : nlen), name);
        return;
    }
    struct sockaddr_storage sa;
    if (rc == RIG_OK) {
        if (strcmp(host, "localhost") == 0) snprintf(host, sizeof host, "127.0.0.1");
        /* Numeric addresses only: resolving names would block the loop or
         * need uv_getaddrinfo's round trip; capabilities publish addresses. */
        if (uv_ip4_addr(host, port, (struct sockaddr_in *)&sa) != 0 &&
            uv_ip6_addr(host, port, (struct sockaddr_in6 *)&sa) != 0)
            rc = RIG_EINVAL;
    }
    if (rc != RIG_OK || nlen >= sizeof ((tunnel *)0)->name) {
        send_error(c, r->idraw, r->idlen, -32000,
                   "capability '%.*s' has no numeric host:port in its url to tunnel to",
                   (int)(nlen > 100 ? 100 : nlen), name);
        return;
    }
    tunnel *t = calloc(1, sizeof *t);
    if (!t || (restlen && !(t->pending = malloc(restlen)))) {
        free(t);
        send_error(c, r->idraw, r->idlen, -32000, "out of memory opening a tunnel");
        return;
    }
    memcpy(t->name, name, nlen);
    if (restlen) memcpy(t->pending, rest, restlen);
    t->plen = restlen;
    t->c = c;
    c->tun = t;
    uv_tcp_init(&srv->loop, &t->up);
    t->up.data = t;
    t->creq.data = t;
    uv_read_stop((uv_stream_t *)&c->tcp);
    rc = uv_tcp_connect(&t->creq, &t->up, (struct sockaddr *)&sa, on_up_connect);
    if (rc < 0) on_up_connect(&t->creq, rc);
}

/* ---------------------------------------------------------------- reading */

typedef void (*method_fn)(request *r);
static const struct {
    const char *name;
    method_fn fn;
} methods[] = {
    {"hello", m_hello},       {"tasks.list", m_list},     {"tasks.start", m_start},
    {"tasks.grade", m_grade}, {"tasks.cancel", m_cancel}, {"bye", m_bye},
};

/* Handle one line. rest..restlen: what follows it (for a tunnel). */
static void handle_frame(conn *c, const char *p, size_t len, const char *rest, size_t restlen) {
    server *srv = c->srv;
    bool first = !c->seen_frame;
    c->seen_frame = true;
    rig_json_error je;
    if (rig_json_doc_parse(srv->doc, p, len, NULL, &je) != 0) {
        char detail[256];
        rig_json_error_format(&je, detail, sizeof detail);
        send_error(c, NULL, 0, -32700, "Parse error: %s", detail);
        return;
    }
    rig_json_val root = rig_json_doc_root(srv->doc);
    request r = {.c = c};
    r.id = rig_json_get(root, "id");
    r.has_id = rig_json_typeof(r.id) != RIG_JSON_MISSING;
    if (r.has_id) {
        rig_json_type it = rig_json_typeof(r.id);
        if (it == RIG_JSON_STRING || it == RIG_JSON_INT || it == RIG_JSON_DOUBLE || it == RIG_JSON_NULL)
            r.idraw = rig_json_raw(r.id, &r.idlen);
        else
            r.has_id = true; /* an id of the wrong type: answered with null */
    }
    const char *m;
    size_t mlen;
    if (!rig_json_is_object(root) || !rig_json_str_view(rig_json_get(root, "method"), &m, &mlen)) {
        send_error(c, r.idraw, r.idlen, -32600, "Invalid Request: expected a JSON-RPC 2.0 request object with a 'method' string");
        return;
    }
    r.params = rig_json_get(root, "params");
    rig_json_type pt = rig_json_typeof(r.params);
    if (pt != RIG_JSON_MISSING && pt != RIG_JSON_OBJECT && pt != RIG_JSON_NULL) {
        REPLY_ERROR(&r, -32602, "params must be an object");
        return;
    }
    if (mlen == 11 && memcmp(m, "tunnel.open", 11) == 0) {
        if (first) tunnel_open(&r, rest, restlen);
        else REPLY_ERROR(&r, -32600, "tunnel.open must be the first message on a connection");
        return;
    }
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strlen(methods[i].name) == mlen && memcmp(methods[i].name, m, mlen) == 0) {
            methods[i].fn(&r);
            return;
        }
    REPLY_ERROR(&r, -32601, "Method not found: '%.*s'", (int)(mlen > 100 ? 100 : mlen), m);
}

/* Handle the lines in p..len while the connection may go on; returns the
 * bytes consumed. */
static size_t process(conn *c, const char *p, size_t len) {
    size_t pos = 0;
    while (!c->job && !c->closing && !c->tun && !c->wblocked) {
        rig_json_frame fr;
        int rc = rig_json_framer_next(&c->fr, p + pos, len - pos, &fr);
        pos += fr.consumed;
        if (rc == 0) break;
        if (rc == 1) {
            handle_frame(c, fr.data, fr.len, p + pos, len - pos);
            if (c->tun) pos = len; /* the rest went into the tunnel */
        } else {
            send_error(c, NULL, 0, -32600, "line too long: over %zu bytes", c->srv->max_line);
        }
    }
    return pos;
}

/* Keep p..len (unhandled bytes) in the connection's own buffer. */
static int keep(conn *c, const char *p, size_t len) {
    if (!len) {
        free(c->buf);
        c->buf = NULL;
        c->len = c->cap = 0;
        return 0;
    }
    if (p != c->buf) {
        if (len > c->cap) {
            size_t cap = len < READ_CHUNK ? READ_CHUNK : len;
            char *n = malloc(cap);
            if (!n) return -1;
            free(c->buf);
            c->buf = n;
            c->cap = cap;
        }
        memmove(c->buf, p, len);
    }
    c->len = len;
    return 0;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
    (void)suggested;
    conn *c = h->data;
    server *srv = c->srv;
    if (c->len == 0 && !srv->rbuf_busy) {
        srv->rbuf_busy = true;
        *buf = uv_buf_init(srv->rbuf, READ_CHUNK);
        return;
    }
    if (c->cap - c->len < READ_CHUNK / 4) {
        size_t cap = c->cap ? c->cap * 2 : READ_CHUNK;
        if (cap < c->len + READ_CHUNK) cap = c->len + READ_CHUNK;
        char *n = realloc(c->buf, cap);
        if (!n) {
            *buf = uv_buf_init(NULL, 0);
            return;
        }
        c->buf = n;
        c->cap = cap;
    }
    *buf = uv_buf_init(c->buf + c->len, (unsigned)(c->cap - c->len));
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf) {
    conn *c = st->data;
    server *srv = c->srv;
    bool shared = buf->base == srv->rbuf;
    if (shared) srv->rbuf_busy = false;
    if (n <= 0) {
        if (n < 0) {
            if (c->tun) tunnel_close(c->tun);
            else conn_close(c);
        }
        return;
    }
    if (c->tun) { /* splice to upstream */
        tunnel *t = c->tun;
        if (up_send(t, buf->base, (size_t)n) < 0) {
            tunnel_close(t);
            return;
        }
        if (uv_stream_get_write_queue_size((uv_stream_t *)&t->up) > TUNNEL_HIGH) uv_read_stop(st);
        return;
    }
    const char *p;
    size_t len;
    if (shared) {
        p = buf->base;
        len = (size_t)n;
    } else {
        c->len += (size_t)n;
        p = c->buf;
        len = c->len;
    }
    size_t used = process(c, p, len);
    if (c->closing) return;
    if (keep(c, p + used, len - used) < 0) {
        conn_close(c);
        return;
    }
    if ((c->job || c->wblocked) && c->reading) {
        uv_read_stop(st);
        c->reading = false;
    }
}

/* The job this connection waited for was answered, or its writes drained:
 * handle the lines that waited, then read again if it waits for neither. */
static void conn_resume(conn *c) {
    if (c->closing || c->tun || c->wblocked) return;
    if (c->len) {
        size_t used = process(c, c->buf, c->len);
        if (c->closing) return;
        if (keep(c, c->buf + used, c->len - used) < 0) {
            conn_close(c);
            return;
        }
    }
    if (!c->job && !c->wblocked && !c->reading && !c->close_after_write) {
        uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
        c->reading = true;
    }
}

static void on_conn_closed(uv_handle_t *h) {
    conn *c = h->data;
    free(c->buf);
    free(c);
}

static void conn_close(conn *c) {
    if (c->closing) return;
    c->closing = true;
    server *srv = c->srv;
    if (c->prev) c->prev->next = c->next;
    else srv->conns = c->next;
    if (c->next) c->next->prev = c->prev;
    srv->nconns--;
    if (c->job) {
        c->job->conn = NULL;
        c->job = NULL;
    }
    if (c->sess) {
        session_orphan(srv, c->sess);
        c->sess = NULL;
    }
    if (c->tun) {
        tunnel *t = c->tun;
        c->tun = NULL;
        t->c = NULL;
        tunnel_close(t);
    }
    uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

static void on_connection(uv_stream_t *l, int status) {
    server *srv = l->data;
    if (status < 0) return;
    conn *c = calloc(1, sizeof *c);
    if (!c) return;
    uv_tcp_init(&srv->loop, &c->tcp);
    c->tcp.data = c;
    c->srv = srv;
    if (uv_accept(l, (uv_stream_t *)&c->tcp) != 0 || srv->nconns >= srv->max_conns ||
        !(c->sess = session_new(srv))) {
        /* Over the cap: closed at once, before it costs anything more. */
        uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
        return;
    }
    c->sess->conn = c;
    rig_json_framer_init(&c->fr, srv->max_line);
    uv_tcp_nodelay(&c->tcp, 1);
    c->next = srv->conns;
    if (srv->conns) srv->conns->prev = c;
    srv->conns = c;
    srv->nconns++;
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    c->reading = true;
}

/* ---------------------------------------------------------------- lifecycle */

static void stop_now(server *srv) {
    if (srv->stopped) return;
    srv->stopped = true;
    pthread_mutex_lock(&srv->env->serve_lock);
    if (srv->env->serving == srv) srv->env->serving = NULL;
    pthread_mutex_unlock(&srv->env->serve_lock);
    uv_close((uv_handle_t *)&srv->listener, NULL);
    uv_close((uv_handle_t *)&srv->stop_async, NULL);
    uv_close((uv_handle_t *)&srv->park_timer, NULL);
    uv_close((uv_handle_t *)&srv->nudge, NULL);
    if (srv->use_signals)
        for (int i = 0; i < 2; i++) uv_close((uv_handle_t *)&srv->sigs[i], NULL);
    while (srv->conns) conn_close(srv->conns);
    for (unsigned b = 0; b < SESSION_BUCKETS; b++)
        while (srv->buckets[b]) session_free(srv, srv->buckets[b]);
    for (job *j = srv->jobs; j; j = j->lnext) {
        j->answered = true;
        /* A running start or grade should give up: a command grader's
         * command is killed rather than left behind. */
        if (j->ctx) atomic_store(&j->ctx->cancelled, true);
        if (!uv_is_closing((uv_handle_t *)&j->timer)) {
            uv_timer_stop(&j->timer);
            uv_close((uv_handle_t *)&j->timer, on_timer_closed);
        }
    }
    pthread_mutex_lock(&srv->lock);
    srv->pool_stopping = true;
    pthread_cond_broadcast(&srv->work_cv);
    pthread_mutex_unlock(&srv->lock);
    /* No worker sends a wake-up once pool_stopping is set, so it may go. */
    uv_close((uv_handle_t *)&srv->wake, NULL);
}

static void on_stop_async(uv_async_t *a) { stop_now(a->data); }
static void on_signal(uv_signal_t *s, int signum) {
    (void)signum;
    stop_now(s->data);
}

static void server_destroy(server *srv) {
    rig_json_doc_free(srv->doc);
    rig_json_writer_free(&srv->w);
    free(srv->rbuf);
    free(srv->buckets);
    pthread_mutex_destroy(&srv->lock);
    pthread_cond_destroy(&srv->work_cv);
    pthread_cond_destroy(&srv->exit_cv);
    free(srv);
}

/* After the loop ran dry: wait for the workers, free the jobs they finished
 * or never ran, close the loop. Returns false when a worker is still stuck
 * (the server must then outlive us: it is leaked, on purpose). */
static bool server_finish(server *srv) {
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += STOP_WAIT_MS / 1000;
    pthread_mutex_lock(&srv->lock);
    while (srv->alive > 0)
        if (pthread_cond_timedwait(&srv->exit_cv, &srv->lock, &dl) == ETIMEDOUT) break;
    bool clean = srv->alive == 0;
    job *list = srv->done, *q = srv->qhead;
    srv->done = srv->qhead = srv->qtail = NULL;
    pthread_mutex_unlock(&srv->lock);
    while (list) {
        job *j = list;
        list = j->qnext;
        job_unlink(j);
        job_free(j);
    }
    while (q) {
        job *j = q;
        q = j->qnext;
        job_unlink(j);
        job_free(j);
    }
    uv_run(&srv->loop, UV_RUN_NOWAIT);
    if (!clean) return false;
    uv_loop_close(&srv->loop);
    return true;
}

static int server_open(rig_env *env, const rig_env_serve_opts *o, bool signals, server **out,
                       rig_error *err) {
    rig_env_serve_opts d = {0};
    if (!o) o = &d;
    server *srv = calloc(1, sizeof *srv);
    if (!srv) return rig_error_set(err, RIG_ENOMEM, "out of memory starting the server");
    srv->env = env;
    srv->timeout_ms = o->grade_timeout_ms > 0 ? o->grade_timeout_ms : RIG_ENV_GRADE_TIMEOUT_MS;
    srv->park_ms = (uint64_t)(o->park_timeout_ms > 0 ? o->park_timeout_ms : RIG_ENV_PARK_TIMEOUT_MS);
    srv->max_line = o->max_line ? o->max_line : RIG_ENV_MAX_LINE;
    srv->max_conns = o->max_connections ? o->max_connections : RIG_ENV_MAX_CONNECTIONS;
    srv->max_tasks = o->max_tasks ? o->max_tasks : RIG_ENV_MAX_TASKS;
    srv->base_workers = o->workers ? o->workers : RIG_ENV_WORKERS;
    pthread_mutex_init(&srv->lock, NULL);
    pthread_cond_init(&srv->work_cv, NULL);
    pthread_cond_init(&srv->exit_cv, NULL);
    rig_json_writer_init(&srv->w, 0);
    srv->doc = rig_json_doc_new();
    srv->rbuf = malloc(READ_CHUNK);
    srv->buckets = calloc(SESSION_BUCKETS, sizeof *srv->buckets);
    if (!srv->doc || !srv->rbuf || !srv->buckets) {
        server_destroy(srv);
        return rig_error_set(err, RIG_ENOMEM, "out of memory starting the server");
    }
    int rc = uv_loop_init(&srv->loop);
    if (rc < 0) {
        server_destroy(srv);
        return rig_error_set(err, RIG_ENOMEM, "cannot start an event loop: %s", uv_strerror(rc));
    }
    const char *host = o->host ? o->host : "127.0.0.1";
    struct sockaddr_storage sa;
    if (uv_ip4_addr(host, o->port, (struct sockaddr_in *)&sa) != 0 &&
        uv_ip6_addr(host, o->port, (struct sockaddr_in6 *)&sa) != 0) {
        rc = rig_error_set(err, RIG_EINVAL, "cannot bind '%s': not a numeric IP address", host);
        goto fail_loop;
    }
    uv_tcp_init(&srv->loop, &srv->listener);
    srv->listener.data = srv;
    if ((rc = uv_tcp_bind(&srv->listener, (struct sockaddr *)&sa, 0)) < 0 ||
        (rc = uv_listen((uv_stream_t *)&srv->listener, 1024, on_connection)) < 0) {
        rig_error_set(err, RIG_EINVAL, "cannot listen on %s:%d: %s", host, o->port, uv_strerror(rc));
        uv_close((uv_handle_t *)&srv->listener, NULL);
        rc = RIG_EINVAL;
        goto fail_loop;
    }
    struct sockaddr_storage bound;
    int blen = sizeof bound;
    uv_tcp_getsockname(&srv->listener, (struct sockaddr *)&bound, &blen);
    srv->port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                  : ((struct sockaddr_in *)&bound)->sin_port);
    uv_async_init(&srv->loop, &srv->wake, on_wake);
    srv->wake.data = srv;
    uv_async_init(&srv->loop, &srv->stop_async, on_stop_async);
    srv->stop_async.data = srv;
    uv_timer_init(&srv->loop, &srv->park_timer);
    srv->park_timer.data = srv;
    uv_timer_init(&srv->loop, &srv->nudge);
    srv->nudge.data = srv;
    unsigned cpus = uv_available_parallelism();
    srv->eager = cpus > 2 ? cpus - 1 : 1; /* the loop thread has a CPU too */
    srv->use_signals = signals;
    if (signals) {
        int sigs[2] = {SIGINT, SIGTERM};
        for (int i = 0; i < 2; i++) {
            uv_signal_init(&srv->loop, &srv->sigs[i]);
            srv->sigs[i].data = srv;
            uv_signal_start(&srv->sigs[i], on_signal, sigs[i]);
        }
    }
    pthread_mutex_lock(&srv->lock);
    for (unsigned i = 0; i < srv->base_workers; i++) spawn_worker(srv);
    pthread_mutex_unlock(&srv->lock);
    pthread_mutex_lock(&env->serve_lock);
    bool busy = env->serving != NULL;
    if (!busy) env->serving = srv;
    pthread_mutex_unlock(&env->serve_lock);
    if (busy) {
        stop_now(srv);
        uv_run(&srv->loop, UV_RUN_DEFAULT);
        if (server_finish(srv)) server_destroy(srv);
        return rig_error_set(err, RIG_ESTATE, "environment '%s' is already serving", env->name);
    }
    *out = srv;
    return RIG_OK;
fail_loop:
    uv_run(&srv->loop, UV_RUN_NOWAIT);
    uv_loop_close(&srv->loop);
    server_destroy(srv);
    return rc;
}

static int run_hook(rig_env *env, rig_env_hook_fn fn, void *ud, const char *what, rig_error *err) {
    if (!fn) return RIG_OK;
    rig_error e;
    rig_error_clear(&e);
    int rc = fn(env, ud, &e);
    if (rc) return rig_error_set(err, rc, "the %s hook failed: %s", what, e.message);
    return RIG_OK;
}

int rig_env_serve(rig_env *env, const rig_env_serve_opts *opts, rig_env_ready_fn on_ready, void *ud,
                  rig_error *err) {
    if (!env) return rig_error_set(err, RIG_EINVAL, "rig_env_serve: NULL env");
    int rc = run_hook(env, env->on_init, env->init_ud, "initialize", err);
    if (rc) return rc;
    /* A client that hangs up shows as EPIPE, not a signal that kills us. */
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    server *srv;
    rc = server_open(env, opts, true, &srv, err);
    if (rc == RIG_OK) {
        if (on_ready) on_ready(srv->port, ud);
        uv_run(&srv->loop, UV_RUN_DEFAULT);
        if (server_finish(srv)) server_destroy(srv);
    }
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    int hrc = run_hook(env, env->on_shutdown, env->shutdown_ud, "shutdown", rc ? NULL : err);
    return rc ? rc : hrc;
}

void rig_env_stop(rig_env *env) {
    if (!env) return;
    pthread_mutex_lock(&env->serve_lock);
    if (env->serving) uv_async_send(&env->serving->stop_async);
    pthread_mutex_unlock(&env->serve_lock);
}

static void *server_thread(void *arg) {
    server *srv = arg;
    uv_run(&srv->loop, UV_RUN_DEFAULT);
    return NULL;
}

int rig_env_server_start(rig_env *env, const rig_env_serve_opts *opts, rig_env_server **out,
                         rig_error *err) {
    if (!env || !out) return rig_error_set(err, RIG_EINVAL, "rig_env_server_start: NULL argument");
    int rc = run_hook(env, env->on_init, env->init_ud, "initialize", err);
    if (rc) return rc;
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old); /* the loop and workers inherit it */
    server *srv;
    rc = server_open(env, opts, false, &srv, err);
    if (rc == RIG_OK && pthread_create(&srv->thread, NULL, server_thread, srv) != 0) {
        stop_now(srv);
        uv_run(&srv->loop, UV_RUN_DEFAULT);
        if (server_finish(srv)) server_destroy(srv);
        rc = rig_error_set(err, RIG_ENOMEM, "cannot start the server's thread");
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == RIG_OK) *out = srv;
    return rc;
}

int rig_env_server_port(const rig_env_server *s) { return s ? s->port : -1; }

void rig_env_server_stop(rig_env_server *srv) {
    if (!srv) return;
    rig_env *env = srv->env;
    pthread_mutex_lock(&env->serve_lock);
    if (env->serving == srv) uv_async_send(&srv->stop_async);
    pthread_mutex_unlock(&env->serve_lock);
    pthread_join(srv->thread, NULL);
    if (server_finish(srv)) server_destroy(srv);
    run_hook(env, env->on_shutdown, env->shutdown_ud, "shutdown", NULL);
}
